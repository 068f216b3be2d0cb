alpha = 10
beta = 2
gamma = 30
delta = 4

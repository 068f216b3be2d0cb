alpha = 10
beta = 2
gamma = 3
delta = 4

x = 0
print(x)

x = 0
print(x)

class Square:
    def area(self):
        return self.side * self.side


class Cube:
    def area(self):
        return self.side * self.side

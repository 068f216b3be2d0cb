let x = 2;

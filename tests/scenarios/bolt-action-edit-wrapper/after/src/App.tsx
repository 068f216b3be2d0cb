const a = 10;

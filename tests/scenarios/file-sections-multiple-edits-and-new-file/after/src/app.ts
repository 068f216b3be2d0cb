const a = 10;
const b = 20;

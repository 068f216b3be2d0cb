let a = 2;
let b = 2;

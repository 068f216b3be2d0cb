const keep = 1;
const unused = true;
const alsoKeep = 2;

const keep = 1;
const alsoKeep = 2;

function total(items) {
  let sum = 0;
  for (const x of items) sum += x;
  return sum;
}

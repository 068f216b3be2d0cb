const line = "=======";
const other = 1;

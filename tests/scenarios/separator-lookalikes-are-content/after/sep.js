const line = "=======";
const other = 2;

export type Id = number;

package main

func setup() {}

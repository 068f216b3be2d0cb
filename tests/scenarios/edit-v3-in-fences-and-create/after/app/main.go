package main

func main() {
	setup()
	run()
}

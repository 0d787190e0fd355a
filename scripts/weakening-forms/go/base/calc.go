package calc

func Add(a, b int) int {
	return a - b
}

func Multiply(a, b int) int {
	return a * b
}

package format

import "fmt"

func Total(values []int) string {
	sum := 0
	for _, v := range values {
		sum += v
	}
	return fmt.Sprintf("total: %d", sum)
}

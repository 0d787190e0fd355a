package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestMultiply(t *testing.T) {
	if got := Multiply(2, 3); got != 6 {
		t.Errorf("Multiply(2, 3) = %d, want 6", got)
	}
}

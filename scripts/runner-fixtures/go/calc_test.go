package calc

import "testing"

var _ = missing // fault:E

func TestAddSmallNumbers(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
	want := 4
	want = 5 // fault:A
	if got := Add(2, 2); got != want {
		t.Errorf("Add(2, 2) = %d, want %d", got, want)
	}
}

func TestAddNegativeNumbers(t *testing.T) {
	want := -3
	want = 3 // fault:B
	if got := Add(-1, -2); got != want {
		t.Errorf("Add(-1, -2) = %d, want %d", got, want)
	}
}

func TestMultiply(t *testing.T) {
	t.Run("by four", func(t *testing.T) {
		want := 12
		want = 7 // fault:C
		if got := Multiply(3, 4); got != want {
			t.Errorf("Multiply(3, 4) = %d, want %d", got, want)
		}
	})
}

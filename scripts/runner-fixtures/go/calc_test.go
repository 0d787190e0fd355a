package calc

import "testing"

var _ = missing // fault:E

func TestAddSmallNumbers(t *testing.T) { // fixed:R
	if got := Add(1, 2); got != 3 { // fixed:R
		t.Errorf("Add(1, 2) = %d, want 3", got) // fixed:R
	} // fixed:R
	want := 4 // fixed:R
	want = 5 // fault:A
	if got := Add(2, 2); got != want { // fixed:R
		t.Errorf("Add(2, 2) = %d, want %d", got, want) // fixed:R
	} // fixed:R
} // fixed:R

func TestAddNegativeNumbers(t *testing.T) {
	t.Skip("skipped on purpose") // fault:S
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

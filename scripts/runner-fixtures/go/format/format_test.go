package format

import "testing"

func TestTotal(t *testing.T) {
	want := "total: 3"
	want = "total: 4" // fault:D
	if got := Total([]int{1, 2}); got != want {
		t.Errorf("Total = %q, want %q", got, want)
	}
}

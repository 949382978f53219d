package area

import "testing"

func TestSquare(t *testing.T) {
	if Square(3) != 9 {
		t.Fatal("wrong")
	}
}

func TestSquareWrong(t *testing.T) {
	if got := Square(2); got != 5 {
		t.Errorf("Square(2) = %d, want 5", got)
	}
}

func TestSkipped(t *testing.T) {
	t.Skip("not today")
}

func TestTable(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		n := n
		t.Run(string(rune('a'+n)), func(t *testing.T) {
			if Square(n) > 4 {
				t.Errorf("Square(%d) too big", n)
			}
		})
	}
}

package area

func Square(n int) int { return n * n }

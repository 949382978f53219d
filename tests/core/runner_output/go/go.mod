module example.com/area

go 1.19

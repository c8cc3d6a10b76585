(list 1 "two)

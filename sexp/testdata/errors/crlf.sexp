(a)
(b c))

(define (f x)
	(if x
		(list [1 2])
		nil))

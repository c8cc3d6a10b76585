;; §7.8 lambda
((lambda () 1)) ;=> 1
---
(let ((adder (lambda (n) (lambda (x) (+ n x))))) ((adder 10) 5)) ;=> 15
---
((lambda (a b) (list b a)) 1 2) ;=> (2 1)
---
(lambda nil 1) ;=> #<closure ()>
---
(lambda) ;### arity 1 "'lambda' requires a parameter list and at least one body expression."
---
(lambda (x)) ;### arity 1 "'lambda' requires a parameter list and at least one body expression."
---
(lambda x 1) ;### type 9 "Lambda parameter definition must be a list of symbols."
---
(lambda "x" 1) ;### type 9 "Lambda parameter definition must be a list of symbols."
---
(lambda (1) 1) ;### type 10 "Lambda parameters must be symbols, got int: 1"
---
(lambda (x "y") 1) ;### type 12 "Lambda parameters must be symbols, got string: \"y\""
---
(lambda (x x) 1) ;### value 12 "Duplicate lambda parameter: x"

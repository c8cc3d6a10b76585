;; §7.6 let, let*
(let ((a 1) (b 2)) (+ a b)) ;=> 3
---
(let () 5) ;=> 5
---
(let nil 5) ;=> 5
---
(let ((a 1) (a 2)) a) ;=> 2
---
(let ((a 1)) (let ((a 2) (b a)) b)) ;=> 1
---
(let ((a 1)) 1 2 a) ;=> 1
---
(let* ((a 1) (b (+ a 1))) b) ;=> 2
---
(let* ((a 1) (a (+ a 1))) a) ;=> 2
---
(let* () 7) ;=> 7
---
(let ((a 1) (b a)) b) ;### unbound 16 "Unbound symbol: Name 'a' is not defined."
---
(let) ;### arity 1 "'let' requires a bindings list and at least one body expression: (let ((var expr)...) body...)"
---
(let ((x 1))) ;### arity 1 "'let' requires a bindings list and at least one body expression: (let ((var expr)...) body...)"
---
(let x 1) ;### arity 1 "'let' requires a bindings list and at least one body expression: (let ((var expr)...) body...)"
---
(let* ((x 1))) ;### arity 1 "'let*' requires a bindings list and at least one body expression: (let ((var expr)...) body...)"
---
(let ((x)) 1) ;### value 7 "Invalid 'let' binding format: expected (symbol expression), got (x)"
---
(let ((x 1 2)) 1) ;### value 7 "Invalid 'let' binding format: expected (symbol expression), got (x 1 2)"
---
(let (x) 1) ;### value 7 "Invalid 'let' binding format: expected (symbol expression), got x"
---
(let ((1 2)) 1) ;### value 7 "Invalid 'let' binding format: expected (symbol expression), got (1 2)"
---
(let* ((x)) 1) ;### value 8 "Invalid 'let*' binding format: expected (symbol expression), got (x)"

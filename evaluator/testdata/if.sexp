;; §7.2 if, when, unless
(if 0 1 2) ;=> 2
---
(if "" 1 2) ;=> 2
---
(if 'a 1 2) ;=> 1
---
(if true 1 (error "no")) ;=> 1
---
(if false (error "no") 2) ;=> 2
---
(if 1 2) ;### arity 1 "'if' requires 3 arguments: (if condition then_branch else_branch)"
---
(if 1 2 3 4) ;### arity 1 "'if' requires 3 arguments: (if condition then_branch else_branch)"
---
(if) ;### arity 1 "'if' requires 3 arguments: (if condition then_branch else_branch)"
---
(if (error "c") 1 2) ;### user 5 "c"
---
(when true 1 2) ;=> 2
---
(when false (error "no")) ;=> nil
---
(when 1 (define w 3) (+ w 1)) ;=> 4
---
(unless false 1 2) ;=> 2
---
(unless true (error "no")) ;=> nil
---
(unless nil 5) ;=> 5
---
(when true) ;### arity 1 "'when' requires a condition and at least one body expression: (when condition body...)"
---
(unless) ;### arity 1 "'unless' requires a condition and at least one body expression: (unless condition body...)"

;; §7.18 with-context
(with-context "a.txt" 1) ;=> 1
---
(with-context (list "a.txt" "b.txt") 1 2) ;=> 2
---
(with-context (dict "id" "m1" "content" "c") 1) ;=> 1
---
(with-context (dict "summary" "s" "matches" (list (dict "id" "m1"))) 1) ;=> 1
---
(with-context nil 1) ;=> 1
---
(with-context 5 1) ;### type 15 "with-context: expected a get-context result, a match, a path or a list of them, got int"
---
(with-context (list "a" 5) 1) ;### type 15 "with-context: expected a get-context result, a match, a path or a list of them, got list"
---
(with-context (dict "x" 1) 1) ;### type 15 "with-context: expected a get-context result, a match, a path or a list of them, got dict"
---
(with-context "a") ;### arity 1 "'with-context' requires a context and at least one body expression: (with-context CTX body...)"

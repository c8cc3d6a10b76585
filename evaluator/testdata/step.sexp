;; §7.17 step
(step "s" 5) ;=> 5
---
(step 's 5) ;=> 5
---
(step (string-append "a" "b") (+ 1 2)) ;=> 3
---
(progn (step "s" (define z 3)) z) ;=> 3
---
(step "outer" (step "inner" 7)) ;=> 7
---
(step "s" (greet (name "x"))) ;=> #<TaskResult COMPLETE "Hello x!">
---
(step 1 2) ;### type 7 "step name must be a string, got int"
---
(step "s") ;### arity 1 "'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])"
---
(step "s" (error "boom")) ;### step 1 "step 's' failed: boom"
---
(step "s" (error "boom") :on-error fail) ;### step 1 "step 's' failed: boom"
---
(step "s" (error "line one\nline two")) ;### step 1 "step 's' failed: line one"
---
(step "s" (atomic-task nosuch)) ;### step 1 "step 's' failed: Template not found: nosuch"
---
(step "s" (fail-tool (a 1))) ;### step 1 "step 's' failed: tool broke"
---
(step "s" (greet)) ;### step 1 "step 's' failed: Missing parameter(s) or access error for substitution: name"
---
(step "outer" (step "inner" (error "x"))) ;### step 1 "step 'outer' failed: step 'inner' failed: x"
---
(step "s" (error "boom") :on-error skip-optional) ;=> null
---
(step "s" (atomic-task nosuch) :on-error skip_optional) ;=> null
---
(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 2) (error "x") n)) :on-error retry-once)) ;=> 2
---
(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 2) (error "x") n)) :on-error retry_once)) ;=> 2
---
(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 3) (error "x") n)) :on-error retry 2)) ;=> 3
---
(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 3) (error "x") n)) :on-error (retry 2))) ;=> 3
---
(let ((n 0)) (try (step "s" (progn (set! n (+ n 1)) (error "x")) :on-error retry 2) (catch e n))) ;=> 3
---
(let ((n 0)) (try (step "s" (progn (set! n (+ n 1)) (error "x"))) (catch e n))) ;=> 1
---
(let ((n 0)) (step "s" (progn (set! n (+ n 1)) (if (< n 3) (error "x") n)) :on-error retry-once)) ;### step 14 "step 's' failed: x"
---
(step "s" 1 :on-error foo) ;### value 23 "step: unknown :on-error policy 'foo' (expected fail, skip-optional, retry-once or retry N)"
---
(step "s" 1 :on-error retry 0) ;### value 29 "step: unknown :on-error policy 'retry 0' (expected fail, skip-optional, retry-once or retry N)"
---
(step "s" 1 :on-error "fail") ;### value 23 "step: unknown :on-error policy '\"fail\"' (expected fail, skip-optional, retry-once or retry N)"
---
(step "s" 1 :oops fail) ;### arity 1 "'step' requires a name and an expression: (step NAME EXPR [:on-error POLICY])"

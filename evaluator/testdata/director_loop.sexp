;; §7.12 director-evaluator-loop
(director-evaluator-loop
  (max-iterations 3) (initial-director-input 0)
  (director (lambda (in i) (+ in 1)))
  (executor (lambda (plan i) (* plan 10)))
  (evaluator (lambda (res plan i) (> res 20)))
  (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;=> 30
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (get *loop-config* "max-iterations"))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (list 'stop p)))) ;=> 3
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (parallel-map (lambda (k) (get *loop-config* k)) (list "max-iterations" "initial-director-input")))) (executor (lambda (p i) p)) (evaluator list) (controller (lambda (d p r i) (list 'stop p)))) ;=> (3 0)
---
(director-evaluator-loop (max-iterations 3) (initial-director-input "go") (director (lambda (in i) in)) (executor (lambda (p i) p)) (evaluator list) (controller (lambda (d p r i) (list 'stop *loop-config*)))) ;=> (dict "max-iterations" 3 "initial-director-input" "go")
---
(define (cfg) *loop-config*)
(director-evaluator-loop (max-iterations 1) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (list 'stop (cfg))))) ;=> (dict "max-iterations" 1 "initial-director-input" 0)
---
(director-evaluator-loop (max-iterations 1) (initial-director-input 0) (director list) (executor list) (evaluator list) (controller (lambda (f p r i) (list 'continue r)))) ;=> ((0 1) 1)
---
(director-evaluator-loop (max-iterations 1) (initial-director-input 0) (director 'list) (executor "list") (evaluator 'list) (controller (lambda (f p r i) (list 'continue r)))) ;=> ((0 1) 1)
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (error "boom"))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### user 97 "Error in 'director' phase (iteration 1): boom"
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (r p i) (if (= i 2) (error "ev") false))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### user 188 "Error in 'evaluator' phase (iteration 2): ev"
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (p) p)) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### arity 1 "Error in 'executor' phase (iteration 1): Arity mismatch: Closure expects 1 arguments, got 2"
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (p i) (loop 1 (error "deep")))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (done plan res i) (if done (list 'stop res) (list 'continue plan))))) ;### user 140 "Error in 'executor' phase (iteration 1): Error during loop iteration 1/1: deep"
---
(director-evaluator-loop (max-iterations 3) (initial-director-input 0) (director (lambda (in i) (+ in 1))) (executor (lambda (plan i) (* plan 10))) (evaluator (lambda (res plan i) (> res 20))) (controller (lambda (d p r i) (list 'continue p))))
*loop-config* ;### unbound 1 "Unbound symbol: Name '*loop-config*' is not defined."

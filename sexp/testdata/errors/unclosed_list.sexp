(progn
  (step "one"
    (run x))
  (step "two"
    (run y)

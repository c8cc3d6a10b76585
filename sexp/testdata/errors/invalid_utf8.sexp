(a "ok"
   bÿ)

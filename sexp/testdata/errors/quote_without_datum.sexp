(list 1
  ')

(define from-two-a 'a)

(define from-two-b 'b)

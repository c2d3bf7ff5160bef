;;; The Scheme side of the JavaScript API (../js-api.js): for each Linda operation a JS
;;; caller makes, a short-lived process runs %js-tuple-op (blocking in/rd belong to
;;; processes), which performs the operation and sends the result, or (error message)
;;; if it raised, to the JS caller's reply pid (#f: no reply wanted).

(define (%js-tuple-op reply op fields)
  (let ((result
         (guard (e (#t (list 'error (if (error-object? e) (error-object-message e) e))))
           (let ((args (vector->list fields)))
             (case op
               ((out) (apply out args) #t)
               ((in) (apply in args))
               ((rd) (apply rd args))
               ((inp) (apply inp args))
               ((rdp) (apply rdp args))
               (else (error "unknown tuple operation" op)))))))
    (if reply (! reply result))))

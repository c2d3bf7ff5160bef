;;; The REPL's process (../repl.js, NodeEvaluator): one long-lived process runs every
;;; input, so `(self)` and its mailbox persist between inputs, as in Termite's REPL.
;;; Inputs arrive as (%repl-job thunk output-pid reply-pid); other messages stay in the
;;; mailbox for the user's own receives. The reply is (ok value ...) or (error e).

;;; An interrupt (Ctrl-C, NodeEvaluator.interrupt) that lands between inputs — just
;;; before a job is taken, or just after its reply left — is dropped here: it must not
;;; end the process that holds the session's (self) and mailbox.

(define (%repl-interrupt? e)
  (and (error-object? e) (equal? (error-object-message e) "interrupted (Ctrl-C)")))

(define (%repl-server)
  (let loop ()
    (guard (e ((%repl-interrupt? e) #f))
      (recv (('%repl-job thunk out reply)
             (! reply
                (guard (e (#t (list 'error e)))
                  (call-with-values
                      (lambda () (parameterize ((current-output-port (%process-port out))) (thunk)))
                    (lambda vals (cons 'ok vals))))))))
    (loop)))

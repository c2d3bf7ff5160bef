(export make-square square? square-side area dialect counter-plus)

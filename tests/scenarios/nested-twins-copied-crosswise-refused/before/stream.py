class Stream:
    def flush(self):
        """Flush the stream."""
        self.lock()
        try:
            try:
                if self.out:
                    self.out.flush()
            finally:
                self.count = 0
        finally:
            self.unlock()

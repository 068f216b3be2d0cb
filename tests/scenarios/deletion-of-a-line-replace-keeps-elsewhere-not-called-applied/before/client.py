class Client:
    def ask(self, cmd):
        """Send a command and return the reply."""
        self.push(cmd)
        return self.read_reply()

    def ask_quietly(self, cmd):
        """Send a command and expect a reply beginning with '2'."""
        self.push(cmd)
        return self.read_quiet_reply()

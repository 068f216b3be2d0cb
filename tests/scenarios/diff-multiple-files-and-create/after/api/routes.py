ROUTES = ["/health"]

DEBUG = False
SECRET = 'keep me'

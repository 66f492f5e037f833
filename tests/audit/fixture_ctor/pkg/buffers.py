class Buffer:
    def getvalue(self):
        return ""

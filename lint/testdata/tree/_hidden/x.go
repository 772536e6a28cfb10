package x

const prompt = "{{ planted }} in _hidden"

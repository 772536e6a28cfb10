package x

const prompt = "{{ planted }} in sub"

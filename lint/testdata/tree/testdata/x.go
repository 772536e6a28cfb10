package x

const prompt = "{{ planted }} in testdata"

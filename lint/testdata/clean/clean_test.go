package clean

const want = "测试文件里的中文不算：{{ x }}"

#!/usr/bin/env python3
"""Writes vars.json of the large benchmark workload: 200 tasks of an agent's
work board, each with several fields, a nested owner, tags and steps.

The values come from a fixed linear congruential generator, not from
Python's random module, so the file is the same on every Python:

    python3 bench/testdata/large/gen_vars.py   # rewrites vars.json next to it

Nothing reads this script at benchmark time; vars.json is committed.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


class LCG:
    """Knuth's MMIX generator; next(n) is in [0, n)."""

    def __init__(self, seed):
        self.x = seed

    def next(self, n):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.x >> 33) % n


VERBS = ["整理", "迁移", "评审", "修复", "优化", "补充", "重写", "核对"]
OBJECTS = ["检索服务", "计费模块", "用户画像", "日志管道", "权限系统", "推荐接口", "知识库", "告警规则"]
THINGS = ["接口文档", "单元测试", "部署脚本", "监控面板", "数据字典", "缓存策略"]
OWNERS = ["alice wang", "bob li", "carol zhang", "dave chen", "erin liu", "frank zhao"]
TEAMS = ["infra", "search", "billing", "growth"]
STATUSES = ["done", "running", "blocked", "pending", "running"]
TAGS = ["后端", "urgent", "文档", "api", "性能", "安全", "q3"]
STEPS = ["write_tests", "update_docs", "code_review", "deploy_staging", "notify_owner"]
NOTES = ["等待上游接口稳定后再合并", "需要和产品确认验收标准", "周五前给出初版"]
SUMMARIES = [
    "上线后错误率下降，仍需观察一周。",
    "依赖的存储迁移尚未完成。",
    "用户反馈响应偏慢，已定位到缓存失效。",
    "方案已评审通过，等待排期。",
]


def task(r, i):
    title = "%s%s的%s" % (VERBS[r.next(len(VERBS))], OBJECTS[r.next(len(OBJECTS))], THINGS[r.next(len(THINGS))])
    if i % 7 == 3:
        title = "  " + title + " "  # trimmed by the template
    t = {
        "id": "T-%04d" % (i + 1),
        "title": title,
        "status": STATUSES[r.next(len(STATUSES))],
        # two decimals in (0, 1): always a float in JSON, in every engine
        "score": (r.next(95) + 3) / 100,
        "priority": r.next(4) + 1,
        "meta": {
            "owner": OWNERS[r.next(len(OWNERS))],
            "team": TEAMS[r.next(len(TEAMS))],
            "active": r.next(5) != 0,
        },
        "tags": [TAGS[r.next(len(TAGS))] for _ in range(r.next(3) + 1)],
        "steps": [{"name": STEPS[r.next(len(STEPS))], "done": r.next(2) == 0} for _ in range(r.next(3) + 1)],
        "summary": SUMMARIES[r.next(len(SUMMARIES))],
    }
    if r.next(3) != 0:  # a third of the tasks have no note: default("无")
        t["note"] = NOTES[r.next(len(NOTES))]
    return t


def main():
    r = LCG(16)
    data = {"large": {
        "agent_name": "麦麦",
        "today": "2026年6月1日",
        "question": "本周哪些任务最需要我跟进？请按优先级给出建议。",
        "items": [task(r, i) for i in range(200)],
    }}
    with open(os.path.join(HERE, "vars.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()

"""The intent rules' cue words and patterns (EN + ZH), as data: what each leg is signalled
by, and what says a message needs no search. :mod:`unifind.agent.intent` reads them."""

from __future__ import annotations

import re

# -- no search -----------------------------------------------------------------------
#: Whole messages that are social talk (after trimming punctuation), EN and ZH.
SOCIAL_EN = re.compile(
    r"^(hi|hello|hey|howdy|yo|hiya|greetings|good (morning|afternoon|evening|night|day)|"
    r"how are you|how's it going|what's up|thanks?|thank you|thx|ty|cheers|many thanks|"
    r"appreciate it|much appreciated|never ?mind|no worries|no problem|you're welcome|"
    r"sorry|my bad|well done|good job|sounds good|perfect|talk (to you )?(soon|later)|"
    r"bye|goodbye|see you|see ya|later|ok|okay|k|cool|great|nice|awesome|got it|sure|"
    r"yes|no|yep|nope|lol|haha|who are you|what can you do|what are you)\b",
    re.I,
)
SOCIAL_ZH = (
    "你好", "您好", "嗨", "哈喽", "早上好", "下午好", "晚上好", "早安", "晚安", "谢谢", "多谢",
    "感谢", "再见", "拜拜", "好的", "明白", "收到", "嗯", "哈哈", "你是谁", "你能做什么",
    "辛苦了", "辛苦啦", "麻烦了", "不客气", "没关系", "没事", "没问题", "抱歉", "不好意思",
    "对不起", "太棒了", "厉害", "明天见", "回头见", "下次见", "好嘞", "好滴",
)  # fmt: skip
#: A question, as opposed to a formula ("good night, talk tomorrow" asks nothing).
QUESTION = re.compile(
    r"[?？]|\b(what|who|when|where|which|why|how|is|are|do|does|did|can|could|will|should)\b|"
    r"吗|呢|什么|怎么|多少|几|哪|谁|是否",
    re.I,
)
#: Tasks the model does from the message alone: write, translate, rewrite, compute, code.
TASK_VERBS = (
    "write", "compose", "draft", "translate", "rewrite", "rephrase", "paraphrase", "reword",
    "convert", "fix", "correct", "proofread", "summarise", "summarize", "shorten", "simplify",
    "expand", "outline", "sort", "reorder", "format", "reformat", "edit", "brainstorm",
    "calculate", "compute", "solve", "generate",
)  # fmt: skip
#: Polite and spoken openings before a task verb: "hey, could you kindly help me to …",
#: "um so can you please …", "i'd like you to …".
POLITE_EN = (
    r"^((please|kindly|just|quickly|hey|hi|hello|um+|uh+|so|ok|okay|also|and)[,!]?\s+)*"
    r"((can|could|would|will) you (please |kindly |just |quickly |maybe |possibly )*"
    r"|(i'd|i would|i) (like|want|need) you to |please |kindly )?"
    r"(help me (to )?|quickly )?"
)
TASK_EN = re.compile(
    POLITE_EN + rf"({'|'.join(TASK_VERBS)}|spell[- ]?check|turn (this|it|these)|"
    r"make (this|it|these|the following)|tell me a (joke|story)|give me a synonym|make up)\b",
    re.I,
)
TASK_ZH = (
    "翻译", "润色", "改写", "写", "讲个", "计算", "把", "总结一下这段", "缩短", "扩写", "精简",
    "概括", "起个", "取个", "想几个", "想个", "编个", "造句", "改",
)  # fmt: skip
#: Polite openings before a Chinese task verb ("请帮我把…", "麻烦给我写…").
ZH_POLITE = re.compile(r"^(请|麻烦|帮忙|能不能|可不可以|你能|你可以)*(帮我|给我|帮忙)?")
TASK_ZH_ANYWHERE = ("等于几", "等于多少", "翻译成", "润色一下", "起个标题", "起个名字")
#: "How do you say … in English": translation, in Chinese.
ZH_SAY = re.compile(
    r"(英文|英语|中文|汉语|日语|日文|法语|德语|韩语|西班牙语)(怎么说|怎么讲|怎么写)"
)
#: Arithmetic in words: "45 divided by 9", "3的平方加4的平方是多少".
MATH_EN = re.compile(
    r"^(what('s| is)|how much is)?\s*-?[\d.,]+\s*(plus|minus|times|multiplied by|divided by|"
    r"to the power of|squared|cubed|percent of|% of)\s*[\d.,]*\s*$",
    re.I,
)
MATH_ZH = re.compile(
    r"^[\d\s.零一二三四五六七八九十百千万两的加减乘除以平立开方根号次等于是多少几()（）]+$"
)
NUMBER_ZH = re.compile(r"[\d一二三四五六七八九十两]")
MATH_ZH_OP = re.compile(r"[加减乘除]|平方|立方|开方|次方|根号")
#: A task whose material is inline ("translate: ...", "改写：...") needs no search even if
#: the material itself says "today" or "our".
INLINE = re.compile(r"[:：\"“”'‘’「」]")
#: How-to and process questions: a handbook answers them, even when they name a DB entity.
HOWTO = re.compile(
    r"\bhow (do|does|did|should|can|to|is|are)\b|\bhow long (does|do|will|until|is|are)\b|"
    r"\b(process|procedure) (for|to|of)\b|"
    r"怎么|如何|流程|步骤|处理|多久|几天|多长时间",
    re.I,
)
ARITHMETIC = re.compile(r"^[\s\d.+\-*/×÷^()%=?]*\d\s*[+\-*/×÷^]\s*\d[\s\d.+\-*/×÷^()%=?]*$")

# -- kb: the team's own knowledge ----------------------------------------------------
KB_EN = (
    "our", "ours", "we", "us", "internal", "internally", "company", "company's", "policy",
    "policies", "handbook", "employee", "employees", "onboarding", "procedure", "procedures",
    "guideline", "guidelines", "wiki", "intranet", "hr", "reimburse", "reimbursement",
    "reimbursements", "expense", "expenses", "on-call", "on call", "our team", "my team",
    "here", "colleague", "colleagues", "new hires", "staff", "office", "badge", "dress code",
    "payroll", "payslip", "salary", "overtime", "vacation", "sick leave", "annual leave",
    "parental leave", "manager", "helpdesk", "help desk", "it support", "work from home",
    "working from home", "remote work", "probation", "timesheet", "benefits",
)  # fmt: skip
KB_ZH = (
    "我们", "公司", "我司", "本公司", "内部", "政策", "制度", "规定", "流程", "手册", "员工",
    "报销", "年假", "值班", "入职", "条款", "团队", "同事", "规范", "差旅", "策略", "出差",
    "请假", "病假", "加班", "工资", "薪资", "考勤", "打卡", "离职", "培训", "工牌", "门禁",
    "办公室", "着装", "上班", "下班", "主管", "审批", "新人", "新同事", "绩效", "福利",
)  # fmt: skip
#: Words that say the team's own organisation is meant (not merely a topic it covers).
OWN = frozenset({"our", "ours", "we", "us", "internal", "internally", "company", "company's",
                  "我们", "公司", "我司", "本公司", "内部"})  # fmt: skip
#: "Who do I contact / 找谁": whom to turn to is the team's own knowledge.
WHO_INTERNAL = re.compile(
    r"\bwho (should|do|can|must|would) (i|we) (contact|ask|call|email|talk to|tell|escalate to|"
    r"report to|go to)\b|\bwho (approves|handles)\b|找谁|联系谁|问谁|谁负责|谁来处理|谁审批|向谁",
    re.I,
)
#: The shop's own catalogue or site: with a product, a column or a filter it names the
#: database's rows ("the price of X in our shop"), not the handbook.
SHOP = re.compile(
    r"\b(our|your|the|this) (online |web )?(shop|store|webshop|catalog|catalogue|inventory|"
    r"website|site|range|stock)\b|\b(you|we) (sell|stock|carry|have in stock)\b|"
    r"我们店|你们店|咱们店|本店|店里|店内|店铺|网店|你们网站|我们网站|你们家|商城里",
    re.I,
)
#: Words that make a "we"/"us" question about the world, not the team ("can we see Mars").
KB_WEAK = frozenset({"we", "us", "here"})

# -- web: time-sensitive or public facts ---------------------------------------------
#: Time words: public facts change, but over a DB model they are a date filter.
WEB_TIME_EN = (
    "latest", "newest", "today", "today's", "tonight", "tomorrow", "yesterday",
    "current", "currently", "now", "this year", "this week", "this month", "recent",
    "recently", "release", "released", "new release", "version", "live",
    "2023", "2024", "2025", "2026", "offers today",
)  # fmt: skip
WEB_TIME_ZH = (
    "最新", "今天", "今日", "明天", "昨天", "现在", "目前", "当前", "今年", "本周", "最近",
    "近期", "版本", "发布", "现任",
)  # fmt: skip
#: Public topics: only the web has them, whatever else the message names.
WEB_TOPIC_EN = (
    "news", "weather", "forecast", "stock market", "exchange rate", "release notes",
    "breaking", "score", "law", "laws", "legislation", "regulation", "regulations",
    "tax rules", "election", "reviews",
)  # fmt: skip
WEB_TOPIC_ZH = (
    "新闻", "天气", "下雨", "汇率", "股价", "股市", "法律", "法规", "劳动法", "新出台",
    "保护法", "评测", "口碑",
)  # fmt: skip

# -- db: filters, amounts, ranking over declared models -----------------------------
AMOUNT = re.compile(
    r"([$€£¥]\s?\d|\d+(\.\d+)?\s?(dollars?|usd|eur|euros?|rmb|yuan|kg|g|gb|tb|%|stars?)\b|"
    r"\d+(\.\d+)?\s?(美元|元|块|公斤|千克|克|星|折))",
    re.I,
)
FILTER_EN = re.compile(
    r"\b(under|below|over|above|less than|more than|cheaper than|at least|at most|between|"
    r"within|cheapest|most expensive|highest|lowest|top \d+|sorted by|order by|rated|"
    r"in stock|out of stock|on sale|discounted|how many|average|total|count|list)\b",
    re.I,
)
FILTER_ZH = (
    "以下", "以上", "以内", "低于", "高于", "不超过", "超过", "至少", "最多", "最便宜", "最贵",
    "最高", "最低", "评分", "有货", "缺货", "打折", "多少钱", "有多少", "平均", "总共", "哪些",
    "哪款", "排序", "价格",
)  # fmt: skip

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
    r"yes|no|yep|nope|lol+|lmao|(ha){2,}h?|omg|wow|brb|gtg|ttyl|xd|who are you|"
    r"what can you do|what are you|long time no see|"
    r"happy (new year|birthday|holidays|weekend|friday|monday|easter|halloween|thanksgiving)|"
    r"merry christmas|have a (nice|good|great|lovely) (day|one|weekend|evening|night|trip))\b",
    re.I,
)
SOCIAL_ZH = (
    "你好", "您好", "嗨", "哈喽", "早上好", "下午好", "晚上好", "早安", "晚安", "谢谢", "多谢",
    "感谢", "再见", "拜拜", "好的", "明白", "收到", "嗯", "哈哈", "你是谁", "你能做什么",
    "辛苦了", "辛苦啦", "麻烦了", "不客气", "没关系", "没事", "没问题", "抱歉", "不好意思",
    "对不起", "太棒了", "厉害", "明天见", "回头见", "下次见", "好嘞", "好滴",
    "谢啦", "谢了", "谢咯", "谢喽", "感恩", "3q", "多谢啦", "拜", "早啊", "晚安啦", "加油",
    "快乐", "愉快", "恭喜", "辛苦", "在吗", "行吧", "好吧", "可以的", "了解",
)  # fmt: skip
#: A social formula opening a longer message ("谢谢啦，问题解决了").
SOCIAL_ZH_LEAD = re.compile("^(" + "|".join(sorted(SOCIAL_ZH, key=len, reverse=True)) + ")")
#: What joins one formula to the next ("hey!! long time no see, how have you been").
SOCIAL_JOIN = re.compile(r"^([\s,.!！，。~～:：;；…-]|and\b|&|also\b|啊|呀|啦|哦)+", re.I)
#: Workplace settings, not topics: in a statement about oneself ("left my charger at the
#: office", "不想上班") they date the writer's day, and ask the handbook nothing.
KB_SETTING = frozenset({
    "office", "colleague", "colleagues", "manager", "staff", "overtime", "上班", "下班",
    "加班", "办公室", "同事", "主管", "出差", "团队",
})  # fmt: skip
#: Arithmetic in words: every word of the message is one of these, and two numbers
#: ("what is an 18% tip on 64.50", "what's 20% off 1099").
MATH_WORDS = frozenset((
    "what", "what's", "whats", "is", "was", "an", "a", "the", "of", "on", "off", "tip",
    "tax", "vat", "discount", "percent", "plus", "minus", "times", "multiplied", "divided",
    "by", "to", "power", "squared", "cubed", "how", "much", "remains", "left", "after",
    "add", "subtract", "sum", "product", "difference",
))  # fmt: skip
MATH_OPS = frozenset((
    "of", "off", "tip", "tax", "vat", "discount", "percent", "plus", "minus", "times",
    "multiplied", "divided", "power", "squared", "cubed", "add", "subtract", "sum",
    "product", "difference",
))  # fmt: skip
MATH_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?%?|[a-z][a-z']*|[+\-*/×÷^%=]")
#: "I'm so tired", "今天好累": how the writer feels or what they did. A time word in such a
#: statement dates the writer's own day, not a fact of the world.
SELF_EN = re.compile(
    r"^((ugh|oh|omg|well|man|so|lol|haha|yay|wow|sigh)[,!.]*\s+)*"
    r"(i|i'm|i am|i've|i was|i feel|i just|i really|i'll|i'd|my|me|we're|feeling|so)\b",
    re.I,
)
#: Small talk aimed at the assistant ("how's your day going", "what did you do today").
ABOUT_YOU = re.compile(
    r"^((hey|hi|hello|so|and)[,!]?\s+)*(how('s| is| was| has) your (day|weekend|morning|week|"
    r"evening|night)|how (have|are|were) you( been| doing| feeling)?|"
    r"what (are|were|did|do) you (do|doing|up to|think of me)|are you (there|ok|okay|busy|real|"
    r"human|a bot|an ai|awake)|do you (like|love|have feelings|dream|sleep|get tired))\b"
    r"|^(你|您)(今天|最近|在)?(怎么样|过得怎么样|好吗|忙吗|在干嘛|在吗|干嘛呢|累吗)",
    re.I,
)
FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i was|my|me)\b", re.I)
FEELING_EN = re.compile(
    r"\b(tired|exhausted|sleepy|bored|boring|stressed|anxious|nervous|sad|happy|excited|"
    r"hungry|sick|ill|annoyed|angry|upset|lonely|hate|love|miss|worn out|burnt out|"
    r"can't wait|ugh|sigh|yay)\b",
    re.I,
)
FEELING_ZH = (
    "累", "困", "饿", "烦", "开心", "高兴", "难过", "伤心", "郁闷", "无聊", "头疼", "头痛",
    "压力", "焦虑", "紧张", "生病", "感冒", "想哭", "崩溃", "心情", "爽", "激动", "期待", "讨厌",
    "忙", "痛", "疼", "难受",
)  # fmt: skip
#: Asking someone to do something ("show me", "帮我查"), or asking at all: not a statement
#: about oneself. A question word inside a statement ("my day is ruined") does not count.
REQUEST = re.compile(
    r"\b(show|find|list|tell|give|search|look up|check|compare|get|fetch|recommend|"
    r"need|want|wonder|wondering|curious|any idea|looking for|would like|i'd like|"
    r"interested in)\b|"
    r"\b(what|what's|who|when|where|which|why|how)\b|"
    r"^(is|are|do|does|did|can|could|will|should|would)\b|[?？]|吗|呢|什么|怎么|多少|几|哪|谁|是否|查|找|看看|告诉|推荐|列出|搜|想要|想买|需要",
    re.I,
)
#: A comparison with something outside ("our warranty vs Apple's"): the other side is
#: public, so a time word in it asks the world even beside the team's own policy.
COMPARE = re.compile(
    r"\b(compare[sd]?|comparison|vs|versus|than|differ|different from|same as|in line with)\b|"
    r"比|相比|对比|一样|不同|冲突|区别|差别|符合",
    re.I,
)
#: The outside side of a comparison ("our meal limit vs the official per diem", "跟国家
#:的比"): the world's figure, even without a public-topic word.
OUTSIDE = re.compile(
    r"\b(official|government|governmental|national|federal|industry|market|competitors?|"
    r"other (companies|employers|shops|stores|retailers)|elsewhere)\b|"
    r"官方|官网|政府|国家|行业|市场|同行|其他公司|别家|别的公司",
    re.I,
)
#: "The US" is a country, not "us" (the team).
THE_US = re.compile(r"\bthe us\b", re.I)
#: "What is a mechanical keyboard", "什么是 OLED": a definition is public knowledge, even
#: of a thing the database sells.
DEFINITION = re.compile(
    r"^(what('s| is| are) (a|an)( [\w-]+){1,3}$|what does .+ mean\b|define\b|meaning of\b)|"
    r"什么是|是什么意思|的意思是",
    re.I,
)
#: A question about a maker or a thing in the world ("who founded Xiaomi"), not the rows.
WORLD_WH = re.compile(
    r"^(who (founded|invented|created|makes|made|owns|designed|started|runs|is|was)|why)\b|"
    r"\b(the )?(history|origins?|story|invention) of\b|谁(创|发明|生产)|为什么|历史|起源|由来",
    re.I,
)
#: "A good company", "which companies": a company in general, not the team's own.
ANY_COMPANY = re.compile(
    r"\b(a|an|which|what|good|great|best|big|tech|another|other|every|any|that|those)\s+"
    r"compan(y|ies)\b",
    re.I,
)
#: English and Chinese names of a team's usual handbook topics: a KB titled in one
#: language ("warranty.md") is asked about in the other ("能保修吗").
GLOSSARY = {
    "warranty": ("保修", "质保"), "refund": ("退款",), "refunds": ("退款",),
    "return": ("退货", "退换"), "returns": ("退货", "退换"), "shipping": ("发货", "运费", "配送"),
    "delivery": ("配送", "送货"), "expense": ("报销", "费用"), "expenses": ("报销", "费用"),
    "leave": ("请假", "休假"), "vacation": ("休假", "假期"), "security": ("安全",),
    "password": ("密码",), "passwords": ("密码",), "onboarding": ("入职",),
    "on-call": ("值班",), "call": ("值班",), "rotation": ("轮班", "轮值"), "holiday": ("假期",),
    "payroll": ("工资",), "travel": ("差旅", "出差"), "benefits": ("福利",),
    "退款": ("refund", "refunds"), "退货": ("return", "returns"), "发货": ("shipping",),
    "保修": ("warranty",), "报销": ("expense", "expenses", "reimbursement"),
    "年假": ("annual leave", "vacation", "leave"), "值班": ("on-call",), "入职": ("onboarding",),
}  # fmt: skip
#: Where one question ends and the next begins: "…, and how much does it cost", "另外…".
CLAUSE = re.compile(
    r"[?？;；]\s*|\s*,?\s+(?:and|also|plus|but)\s+(?:also\s+)?"
    r"(?=(?:what|what's|how|which|who|when|where|whether|is|are|do|does|did|can|could|"
    r"tell|show|list|give|find|the)\b)|[，,]?\s*(?:另外|还有|以及|同时|顺便问一下|顺便)[，,]?\s*",
    re.I,
)
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
    "概括", "起个", "取个", "想几个", "想个", "编个", "造句", "改", "算一下", "算算", "帮我算",
)  # fmt: skip
#: Writing and language tasks: at the head of a message they dominate the topic words it
#: names ("write a haiku about headphones"), unless it asks for the sources' facts.
WRITE_VERBS = re.compile(
    POLITE_EN + r"(write|compose|draft|translate|rewrite|rephrase|paraphrase|reword|"
    r"proofread|shorten|simplify|expand|edit|brainstorm|polish|make up|come up with|"
    r"tell me a (joke|story|poem)|give me a synonym|spell[- ]?check|"
    r"(give me|suggest|come up with|think of) (a |an |some |a few |\d+ )?([\w-]+ )?"
    r"(ideas|names|titles|slogans|taglines|synonyms|puns|captions|hashtags))\b"
    r"|^(请|麻烦|帮忙|能不能|可不可以|你能|你可以)*(帮我|给我|帮忙)?"
    r"(写|翻译|润色|改写|编|起个|取个|想个|想几个|造句|扩写|缩写|精简)",
    re.I,
)
#: A task verb anywhere in the instruction ("I'd like you to make it shorter: '…'").
TASK_ANYWHERE = re.compile(
    r"\b(write|compose|draft|translate|rewrite|rephrase|paraphrase|reword|proofread|"
    r"shorten|simplify|summari[sz]e|edit|polish|correct|fix the (grammar|typos|spelling)|"
    r"make (it|this|them|these) (shorter|longer|clearer|simpler|punchier|friendlier|"
    r"more \w+|less \w+|sound \w+))\b"
    r"|翻译|润色|改写|总结|缩写|概括|精简|扩写|改一下|改成|写成|"
    # "把这段开场白改得更生动": the ba-construction with an edit verb
    r"把[^，。？！,?!]{1,16}?(改|写|翻译|译|润色|缩|扩|精简|概括|总结|调整)(得|成|为|一下)",
    re.I,
)
#: The material a task works on, pointed at rather than quoted: "the text below",
#: "下面这段话".
GIVEN_TEXT = re.compile(
    r"\b(the following|(the|this|my) (paragraph|sentence|text|email|message|passage|draft|"
    r"note|line)s?( below)?)\b|"
    r"(下面|以下|下列)的?这?[段句篇封]?(话|文字|内容|句子|段落|邮件|文章|通知|英文|中文|文本)|"
    r"这一?[段句篇封](话|文字|内容|句子|段落|邮件|文章|通知)?",
    re.I,
)
#: "How do I say 'out of stock' in Spanish": translation.
SAY_EN = re.compile(
    r"\bhow (do|would|can|should) (i|you|we) (say|write|spell) .+ in (english|french|spanish|"
    r"german|italian|portuguese|dutch|chinese|mandarin|cantonese|japanese|korean|russian|"
    r"arabic|hindi)\b",
    re.I,
)
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
    r"to the power of|squared|cubed|percent of|% of)\s*[\d.,]*\s*(percent|%)?\s*$",
    re.I,
)
MATH_ZH = re.compile(
    r"^[\d\s.零一二三四五六七八九十百千万两的加减乘除以平立开方根号次等于是多少几()（）]+$"
)
NUMBER_ZH = re.compile(r"[\d一二三四五六七八九十两]")
MATH_ZH_OP = re.compile(r"[加减乘除]|平方|立方|开方|次方|根号")
#: A task whose material is inline ("translate: ...", "改写：...") needs no search even if
#: the material itself says "today" or "our".
INLINE = re.compile(r"[:：]|(?:^|\s)[\"“'‘「]")
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
    "working from home", "remote work", "probation", "timesheet", "benefits", "new hire",
    "new starter", "new starters", "new joiner", "new joiners", "before i start",
    "when i start", "my first day", "my first week", "start date", "allowance",
    "allowances", "per diem",
)  # fmt: skip
KB_ZH = (
    "我们", "公司", "我司", "本公司", "内部", "政策", "制度", "规定", "流程", "手册", "员工",
    "报销", "年假", "值班", "入职", "条款", "团队", "同事", "规范", "差旅", "策略", "出差",
    "请假", "病假", "加班", "工资", "薪资", "考勤", "打卡", "离职", "培训", "工牌", "门禁",
    "办公室", "着装", "上班", "下班", "主管", "审批", "新人", "新同事", "绩效", "福利",
    "能退", "可以退", "退吗", "能换", "可以换", "退换", "包退",
)  # fmt: skip
#: Words that say the team's own organisation is meant (not merely a topic it covers).
OWN = frozenset({"our", "ours", "we", "us", "internal", "internally", "company", "company's",
                  "我们", "公司", "我司", "本公司", "内部"})  # fmt: skip
#: A question put as a rule ("mfa requirements", "is sms allowed", "婚假有几天"): with one of
#: the handbook's own words, the handbook's question.
RULE = re.compile(
    r"\b(allowed|allow|permitted|do (i|we) (have to|need|get)|"
    r"am i|must|mandatory|required|requirements?|rules?|ok|okay|accepted|eligible|"
    r"entitled|covered|deadline|limit|how many days|how soon|cut-?off)\b|"
    r"可以|能不能|能否|几天|多少天|多久|要求|规定|必须|需要|允许|吗",
    re.I,
)
#: "Is this covered?", "send it back": whether a case is under the terms, and returning a
#: thing, are the handbook's (warranty, returns) whatever the product.
COVERED = re.compile(
    r"\b(is|are|was|were) (this|it|that|they|these|those|mine|my [\w-]+) (still )?covered\b"
    r"|\bsen[dt]( \w+){0,3} back\b|\b(non-)?(returnable|refundable|exchangeable)\b"
    r"|在保修|保修吗|算保修|能不能退|可以退货",
    re.I,
)
#: Something wrong with the writer's own parcel or item ("arrived damaged", "没收到"): the
#: handbook's damaged-or-lost process, not a row to list.
PROBLEM = re.compile(
    r"\b(arrived|came|is|was|were|are) (damaged|broken|wrong|late|defective|faulty|cracked)\b|"
    r"\b(never arrived|hasn't arrived|has not arrived|didn't arrive|did not arrive|"
    r"lost in (transit|the post)|wrong (item|size|colou?r))\b|破损|坏了|发错|没收到|丢件|少发|漏发",
    re.I,
)
#: Where else a thing is sold or priced ("on amazon", "京东", "官网"): the world's price.
RETAILER = re.compile(
    r"\b(amazon|ebay|aliexpress|walmart|best buy|bestbuy|jd\.com|official (site|store|"
    r"website|shop)|apple store|manufacturer'?s? (site|website|price))\b"
    r"|京东|淘宝|天猫|拼多多|官网|官方旗舰店|官方商城",
    re.I,
)
#: Time words that only date a price asked of the shop ("现在卖多少"): its price now.
NOW = frozenset({"now", "current", "currently", "现在", "目前", "当前"})
#: A reference line ("Order KO-2211.", "订单号：12345"): it identifies the case, asks nothing.
REFERENCE = re.compile(
    r"^\s*(order|ticket|case|ref|reference|invoice|订单号?|单号)\s*(no\.?|number|#|:|：)?\s*"
    r"[a-z]*[-#]?\d[\w-]*\W*$",
    re.I,
)
SHOP_ZH_SELL = re.compile("(我们|咱们|你们|咱)(卖|售|店)")
#: "Do orders placed on Saturday ship the same day": a shipping rule, not the rows.
SHIPS = re.compile(r"\b(do|does|will|would|can) (\S+ ){1,5}(ship|dispatch)\b|\bsame[- ]day\b", re.I)
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
#: "Is the iphone 15 cheaper here": with a product, "here" is the shop.
HERE = re.compile(r"\bhere\b|这里|这儿|这边", re.I)
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
    "tax rules", "election", "reviews", "statutory", "by law", "legally", "legal requirement",
    "legal requirements", "keynote", "market cap", "market value", "earnings", "ipo",
    "launch event", "share price", "stock price", "founder", "headquarters",
    "headquartered", "out yet", "come out", "comes out", "coming out", "came out",
    "announced", "announce", "announcement", "launch", "launched", "launches",
    "release date", "rumors", "rumours", "leaks", "leaked", "unveiled", "pre-orders open",
)  # fmt: skip
WEB_TOPIC_ZH = (
    "新闻", "天气", "下雨", "汇率", "股价", "股市", "法律", "法规", "劳动法", "新出台",
    "保护法", "评测", "口碑", "法定", "国家规定", "国家标准", "市值", "发布会", "财报", "股票",
    "创始人", "总部", "董事长", "上市", "开售", "发售", "什么时候出", "出了吗", "官宣", "爆料",
)  # fmt: skip

# -- db: filters, amounts, ranking over declared models -----------------------------
AMOUNT = re.compile(
    r"([$€£¥]\s?\d|\d+(\.\d+)?\s?(dollars?|usd|eur|euros?|rmb|yuan|kg|g|gb|tb|%|stars?)\b|"
    r"\d+(\.\d+)?\s?(美元|元|块|公斤|千克|克|星|折))",
    re.I,
)
#: Buying words: a customer's name with one asks for the orders ("下过几次单").
BUY_ZH = re.compile(r"买|购|下.{0,3}单|订单|消费|花了|花费")
FILTER_EN = re.compile(
    r"\b(under|below|over|above|less than|more than|cheaper than|at least|at most|between|"
    r"within|cheapest|most expensive|highest|lowest|top \d+|sorted by|order by|rated|"
    r"in stock|out of stock|on sale|discounted|how many|average|total|count|list)\b",
    re.I,
)
FILTER_ZH = (
    "以下", "以上", "以内", "低于", "高于", "不超过", "超过", "至少", "最多", "最便宜", "最贵",
    "最高", "最低", "评分", "有货", "缺货", "打折", "多少钱", "有多少", "平均", "总共", "哪些",
    "哪款", "排序", "价格", "卖多少", "售价",
)  # fmt: skip

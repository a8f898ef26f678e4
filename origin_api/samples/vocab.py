"""Word tables, and the ranked vocabulary the generator draws its Zipfian words from."""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass

from .common import picker


def _words(text: str) -> list[str]:
    return text.split()


# --------------------------------------------------------------------------------------------
# Word lists. Real words at the head of the Zipfian ranking, so common-word queries behave
# like real ones (stop-word-ish terms with huge posting lists).
# --------------------------------------------------------------------------------------------

EN_HEAD = _words(
    """
the to and of a in is it that for this with on not be we you i are as have but if can from
at or so an was all will by my do there it's what should then just one when which now about
out up they more also need use like new would get make no only into some these than other
first see because still same how here after where any let time could before does over back
why each way think sure both well after again already right instead without look two done
since while even last might must those much very really through
"""
)

PROG_HEAD = _words(
    """
error test file function code run fix config server request build data value type user line
return change update add check call path module version method string list log output input
class import package install debug result status message event session query database table
key index cache token client handler route api http json parse format command script default
option field object array map timeout connection deploy commit branch merge diff patch
review lint compile bundle shell variable argument parameter interface component state
render page template style stream buffer retry limit offset batch worker queue job task
thread process memory disk network port host container image release migration schema column
row setup fixture mock assert expect
"""
)

MID_WORDS = _words(
    """
able above accept access account across action active actual adapter address admin advance
affect agent ahead alert align allow alone along alpha alternative amount analysis anchor
annotation answer apart append apply approach approve area around arrive aside asset async
attach attempt attribute audit author auto available average avoid await aware backend
backoff backup badge balance bare base basic batching beacon become begin behavior behind
below benchmark best beta better between beyond binary bind bit blank block blob body
boolean boot border bottom bound boundary box brace bracket break bridge brief broken
browser bucket budget bug bulk button byte bytes calendar callback cancel candidate capacity
capture card care careful carry case catch cause cell center certain certificate chain
chance channel chapter char character chart cheap checksum child choice choose chunk circle
claim clean clear click clock clone close closure cloud cluster coerce cold collect
collection color combine comment common compare compat complete complex compose compress
compute concat concern concurrent condition conflict connect consider consistent console
constant constraint consume contain content context continue contract control convert cookie
copy core correct cost count counter coverage cover crash create credential critical cron
cross crypto current cursor custom cycle daemon daily dashboard date deadline deadlock
decide decimal declare decode decorator deep define delay delete delta demo deny depend
dependency deprecated depth describe design destroy detail detect develop device dialog
dictionary different digest digit direct directory disable discard discover dispatch display
distinct divide docker document domain double download draft drift driver drop dry due dump
duplicate duration dynamic eager early edge edit effect element else email embed emit empty
enable encode encoding end endpoint enforce engine ensure enter entity entry enum
environment equal escape estimate evaluate evict exact example exceed exception exclude
execute exist exit expand expire explain explicit export expose express extend extension
external extra extract factor factory fail failure fallback false fast feature fetch file
filter final find finish fire flag flaky flat float flow flush focus folder follow font
force fork form forward frame framework free freeze fresh front full gap garbage gateway
general generate generic global goal graceful grant graph green grid group guard guess guide
half handle hash header health heap height helper hidden hint history hold home hook
horizontal hot hour html icon idle ignore image immutable implement include increase
increment infer info inherit init initial inline inner insert inside inspect instance
integer integration intent internal interval invalid invoke issue item iterate join keep
kernel kind label language large latency latest launch layer layout lazy lead leak learn
least leave legacy length level library license lifecycle light limiter linear link listen
literal load local locale lock logger logic long loop lower machine main major manage
manifest manual margin mark marker master match matrix maximum measure medium member menu
merge metadata metric middle middleware minimum minor minute mirror miss missing mobile mode
model modify monitor month mount move multiple mutable mutex name native navigate nested
network never next node noise none normal note notice notify null number numeric observe
obvious offline often open operation operator optimize order origin original outer overflow
override owner pack padding pair panel panic parallel parent parser partial pass password
pause payload peak pending percent perform period permission persist phase pick pipe
pipeline pixel place plain plan platform plugin pointer policy poll pool popup position
possible post power prefix prepare present preview previous primary print priority private
probe problem produce profile program progress project promise prompt proof property protect
protocol provide proxy public publish pull purge push quick quota quote race raise random
range rate raw reach read ready real reason rebuild receive recent record recover recursive
reduce refactor reference refresh region register regex registry reject relative reload
remote remove rename render repeat replace reply report repo request require reset resolve
resource respond response rest restart restore restrict reuse revert rewrite root rotate
round router rule runtime safe sample save scale scan schedule scope score screen scroll
search second secret section secure select self send sense separate sequence serial
serialize serve service set settle shape share short signal signature silent simple single
size skip slice slot slow small snapshot socket soft source space span spawn special split
stable stack stage stale standard start startup static step stop storage store strict strip
struct structure stub style submit subscribe success suffix suggest summary supply support
suspend swap switch symbol sync syntax system tag target team temp terminal text theme throw
tick ticket tier title toggle tool top topic total trace track trade transaction transform
transport tree trigger trim true trust tuple turn unique unit unknown unlock unpack unsafe
unused update upgrade upload upper usage utility valid validate vector vendor verbose verify
vertical view virtual visible volume wait warm warning watch weak week weight while width
window wrap write wrong yaml yield zero zone
"""
)

VERBS = _words(
    """
get set load save parse build fetch create update delete validate resolve handle compute
render sync flush apply merge normalize encode decode ensure refresh schedule dispatch read
write open close start stop check find list register emit collect
"""
)

NOUNS = _words(
    """
user account invoice order payment session token config cache request response handler
client server queue job task event message record entry item batch report schedule rule
policy profile settings metric trace span route endpoint schema table column index query
cursor page result status error header payload buffer stream chunk file path node graph tree
worker pool lock retry limit window
"""
)

SUFFIXES = _words(
    """
Manager Service Repository Handler Client Config Error Factory Builder Store Cache Parser
Registry Provider Adapter Controller Worker Resolver Validator Serializer
"""
)

PROJECT_PREFIX = _words(
    """
billing notes demo auth search payments inventory chat media analytics ledger scheduler
gateway crawler mailer reports catalog checkout ingest metrics
"""
)
PROJECT_SUFFIX = ["service", "app", "api", "web", "cli", "worker", "sdk", "ui", "core", "pipeline"]

# CJK: real common words, used inside sentence templates.
ZH_NOUNS = _words(
    """
数据库 服务器 配置 测试 错误 日志 接口 用户 文件 函数 缓存 请求 响应 版本 依赖 模块 代码 分支 权限 参数 数据 字段 索引 查询 事务 连接 线程 进程 内存 磁盘
网络 端口 证书 密钥 环境变量 脚本 容器 镜像 集群 节点 任务 队列 消息 事件 会话 页面 组件 路由 样式 表格 报告 文档 注释 类型 对象 数组 字符串 变量 常量 异常
断言 覆盖率 性能 迁移 部署 编译 构建 发布 回滚 监控 告警 备份 同步 超时 重试 并发 死锁 内存泄漏 单元测试 集成测试
"""
)
ZH_VERBS = _words(
    """
修复 检查 运行 更新 删除 添加 修改 重构 优化 部署 迁移 测试 调试 排查 确认 回滚 合并 提交 重启 配置 安装 升级 生成 导出 导入 解析 验证 清理 拆分 实现
"""
)
ZH_ADJS = _words(
    """
很慢 正常 失败 成功 太大 不对 有问题 没问题 稳定 不稳定 过期 为空 重复 缺失
"""
)
ZH_CONJ = ["但是", "所以", "因为", "然后", "如果", "另外", "不过", "而且"]

JA_NOUNS = _words(
    """
データベース 設定 テスト エラー サーバー ログ ファイル 関数 問題 性能 キャッシュ リクエスト レスポンス バージョン 依存関係 モジュール コード ブランチ 権限 ユーザー
パラメータ データ フィールド インデックス クエリ トランザクション 接続 スレッド プロセス メモリ ディスク ネットワーク ポート 証明書 環境変数 スクリプト コンテナ
イメージ クラスタ ノード タスク キュー メッセージ イベント セッション ページ コンポーネント ルーティング ドキュメント コメント オブジェクト 配列 文字列 変数 例外
カバレッジ 移行 デプロイ ビルド リリース 監視 バックアップ 同期 タイムアウト リトライ
"""
)
JA_VERBS = _words(
    """
修正 確認 実行 更新 削除 追加 変更 リファクタリング 最適化 デプロイ 移行 テスト デバッグ 調査 マージ コミット 再起動 設定 インストール アップグレード 生成 解析
検証 実装
"""
)
JA_ADJS = ["遅い", "正常", "大きすぎる", "古い", "不安定", "おかしい", "空"]

KO_NOUNS = _words(
    """
데이터베이스 설정 테스트 오류 서버 로그 파일 함수 문제 성능 캐시 요청 응답 버전 배포 빌드 코드 브랜치 권한 사용자 마이그레이션 인덱스 쿼리 연결 메모리
"""
)
KO_VERBS = ["수정", "확인", "실행", "업데이트", "삭제", "추가", "변경", "배포", "검증", "구현"]


# Syllables of the pseudo-words that make the vocabulary's long tail.
_ONSETS = _words("b br c ch cl d dr f fl g gr h j k l m n p pl pr qu r s sh sk sl st t th tr v w z")
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
_CODAS = ["", "", "", "n", "r", "s", "l", "m", "x", "nd", "rt", "st", "ck"]


@dataclass(slots=True)
class Vocab:
    """Words by rank (0 = most frequent) with cumulative Zipf weights for ``random.choices``."""

    words: list[str]
    cum: list[float]
    head_end: int = 200
    mid_end: int = 3000

    def rank(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}


def _pseudo_words(rng: random.Random, n: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    pick = picker(rng)
    while len(out) < n:
        word = "".join(pick(_ONSETS) + pick(_VOWELS) + pick(_CODAS) for _ in range(pick((2, 2, 3))))
        if word not in taken and len(word) >= 4:
            taken.add(word)
            out.append(word)
    return out


@functools.lru_cache(maxsize=2)
def build_vocab(seed: int = 42, size: int = 150_000) -> Vocab:
    """The ranked vocabulary: real English and programming words first, pseudo-words after."""
    rng = random.Random(f"vocab:{seed}")
    ranked: list[str] = []
    seen: set[str] = set()
    for word in itertools.chain.from_iterable(itertools.zip_longest(EN_HEAD, PROG_HEAD)):
        if word and word not in seen:
            seen.add(word)
            ranked.append(word)
    mid = [w for w in MID_WORDS + NOUNS + VERBS if w not in seen]
    mid = list(dict.fromkeys(mid))
    rng.shuffle(mid)
    seen.update(mid)
    ranked += mid
    # The mid bucket keeps going with pseudo-words so that ranks 200..3000 are all "mid".
    ranked += _pseudo_words(rng, size - len(ranked), seen)
    cum = list(itertools.accumulate(1.0 / (r + 2.7) ** 1.07 for r in range(len(ranked))))
    return Vocab(ranked, cum)

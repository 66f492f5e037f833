"""C/C++ extractor data: external namespaces, library name sets, the scope record, and
parameter / argument counting for overload arity. Used by ``cpp`` and its mixins.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node as TSNode

from codegraph.indexer import treesitter as ts

EXTERNAL_NS = frozenset({"std", "boost", "testing", "absl"})
SMART_POINTERS = frozenset({"unique_ptr", "shared_ptr", "weak_ptr", "optional", "reference_wrapper", "auto_ptr"})
MAKERS = frozenset({"make_unique", "make_shared"})
# Keywords the grammar parses as calls (`static_cast<int>(x)`, `sizeof(x)` in C++ macros).
NOT_CALLS = frozenset({"static_cast", "dynamic_cast", "reinterpret_cast", "const_cast", "sizeof", "alignof",
                       "decltype", "typeid", "noexcept", "offsetof", "va_arg", "defined", "__attribute__"})
TEST_MACROS = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P", "FRIEND_TEST"})
# STL member names: an unknown receiver calling one of these makes no `missing` stub
# when the repository defines no such method.
STL_METHODS = frozenset("""
push_back emplace_back pop_back push_front pop_front size empty begin end cbegin cend rbegin rend clear
insert erase find count at front back data c_str str length substr append reserve resize get reset
release swap first second emplace lower_bound upper_bound equal_range what load store exchange
compare_exchange_weak compare_exchange_strong lock unlock try_lock join detach wait notify_one
notify_all value value_or has_value operator() assign capacity shrink_to_fit compare replace
""".split())
LIBC = frozenset("""
memcpy memset memmove memcmp memchr strlen strnlen strcmp strncmp strcpy strncpy strcat strncat strchr strrchr
strstr strdup strndup strtok strerror strspn strcspn strcasecmp strncasecmp malloc calloc realloc free
aligned_alloc posix_memalign printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf puts fputs
fputc putc putchar fgets fgetc getc getchar ungetc fopen fdopen freopen fclose fread fwrite fflush fseek ftell
rewind feof ferror clearerr perror remove rename tmpfile scanf sscanf fscanf exit _exit abort atexit assert
qsort bsearch atoi atol atoll atof strtol strtoul strtoll strtoull strtod strtof abs labs llabs div getenv
setenv time clock difftime mktime localtime gmtime strftime isalpha isdigit isspace isalnum isupper islower
isxdigit isprint ispunct iscntrl toupper tolower va_start va_end va_copy va_arg open close read write lseek
stat fstat lstat unlink mkdir rmdir getpid fork execv execvp waitpid signal raise sleep usleep nanosleep
pthread_create pthread_join pthread_mutex_lock pthread_mutex_unlock pthread_mutex_init pthread_mutex_destroy
pthread_cond_wait pthread_cond_signal pthread_cond_broadcast pthread_self select poll socket bind listen accept
connect send recv sendto recvfrom setsockopt getsockopt htons htonl ntohs ntohl inet_pton inet_ntop
sqrt pow exp log log2 log10 floor ceil round fabs fmod sin cos tan atan atan2 fmin fmax isnan isinf
offsetof setjmp longjmp errno
""".split())
HEADER_EXT = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp")


@dataclass(slots=True)
class _Scope:
    end: int
    kind: str  # file | ns | class | fn
    lookup: tuple[str, ...]  # naming context: namespace / class path (qn segments)
    source_qn: str
    source_sig: str
    owner: str | None = None  # enclosing class qn (`this`)
    default_access: str = "public"
    locals: dict[str, TSNode | None] = field(default_factory=dict)  # var -> type node



def _plain_params(ptypes: str) -> str:
    """``(int, const std::string&) const`` -> ``int, const std::string&`` (SymbolRecord.params)."""
    return ptypes[1:ptypes.rfind(")")] if ptypes.startswith("(") else ptypes


def _count_args(args: TSNode | None) -> int | None:
    """Arguments of a call; None when a pack expansion (``f(args...)``) hides the count."""
    if args is None:
        return 0
    if any(c.type == "parameter_pack_expansion" for c in args.named_children):
        return None
    return sum(1 for c in args.named_children if c.type != "comment")


def _call_arity(node: TSNode) -> int | None:
    """Arguments passed by a call, `new`, or a constructing declaration."""
    t = node.type
    if t in ("call_expression", "new_expression"):
        return _count_args(node.child_by_field_name("arguments"))
    if t == "init_declarator":
        v = node.child_by_field_name("value")
        return _count_args(v) if v is not None and v.type in ("argument_list", "initializer_list") else None
    return None


def _param_arity(params: TSNode | None) -> tuple[int | None, bool]:
    """(parameter count, variadic); count None when defaults make it a range."""
    if params is None:
        return None, False
    n, variadic = 0, False
    for p in params.named_children:
        if p.type == "comment":
            continue
        if p.type in ("variadic_parameter", "variadic_parameter_declaration") or ts.text(p) == "...":
            variadic = True
            continue
        if p.type == "optional_parameter_declaration":
            return None, variadic
        if p.type == "parameter_declaration" and ts.text(p).strip() == "void" and len(params.named_children) == 1:
            return 0, False
        n += 1
    return n, variadic

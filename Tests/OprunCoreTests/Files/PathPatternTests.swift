import OprunCore
import Testing

/// Path patterns as a manifest's `inputs` and `outputs` write them (SPEC §10).
@Suite struct PathPatternTests {
  private func parsed(_ text: String) throws -> PathPattern { try PathPattern.parse(text).get() }

  @Test func aLeadingExclamationMarkMakesAnExclusion() throws {
    let exclusion = try parsed("!src/**/*_test.c")
    #expect(exclusion.isExclusion)
    #expect(exclusion.body == "src/**/*_test.c")
    #expect(exclusion.text == "!src/**/*_test.c")
    let plain = try parsed("src/main.c")
    #expect(!plain.isExclusion)
    #expect(plain.body == "src/main.c")
  }

  @Test func malformedPatternsAreRefusedWithTheirReason() {
    #expect(PathPattern.parse("") == .failure(.empty))
    #expect(PathPattern.parse("!") == .failure(.onlyExclamation))
    #expect(PathPattern.parse("a\u{0}b") == .failure(.containsNUL))
    #expect(PathPattern.parse("src/[ab.c") == .failure(.unclosedBracket))
    #expect(PathPattern.parse("[a/b]") == .failure(.unclosedBracket), "a bracket ends within its component")
    #expect(PathPatternError.unclosedBracket.message == "a '[' that is never closed")
    #expect(PathPatternError.empty.message == "an empty path pattern")
  }

  @Test func aClosingBracketFirstInTheSetIsAMember() throws {
    #expect(try parsed("[]]").body == "[]]")
    #expect(try parsed("[!]]x").body == "[!]]x")
    #expect(PathPattern.parse("[]") == .failure(.unclosedBracket), "the `]` is a member, so the set never closes")
    #expect(try parsed("a\\[b").body == "a\\[b", "an escaped bracket opens nothing")
  }

  @Test func componentsTellLiteralsWildcardsAndAnyDepthApart() throws {
    #expect(
      try parsed("./src//**/*.c").components == [.literal("src"), .anyDepth, .wildcard("*.c")])
    #expect(try parsed("a?/[xy]/**x").components == [.wildcard("a?"), .wildcard("[xy]"), .wildcard("**x")])
  }

  @Test func theLiteralPrefixIsWhereAWalkStarts() throws {
    let pattern = try parsed("/usr/include/**/*.h")
    #expect(pattern.isAbsolute)
    #expect(pattern.literalPrefix.folder == ["usr", "include"])
    #expect(pattern.literalPrefix.rest == [.anyDepth, .wildcard("*.h")])
    let literal = try parsed("include/")
    #expect(literal.namesFolder && !literal.isAbsolute)
    #expect(literal.literalPrefix.folder == ["include"])
    #expect(literal.literalPrefix.rest.isEmpty)
  }

  @Test func wildcardCharactersAreStarQuestionMarkAndBracket() {
    #expect(PathPattern.hasWildcards("*.c"))
    #expect(PathPattern.hasWildcards("a?"))
    #expect(PathPattern.hasWildcards("[ab]"))
    #expect(!PathPattern.hasWildcards("main.c"))
    #expect(!PathPattern.hasWildcards("a{b,c}"), "braces are not expanded")
  }
}

/// Paths resolved as text, as recorded paths are.
@Suite struct LexicalPathTests {
  @Test func resolvingJoinsAndFoldsDotsAndSlashes() {
    #expect(LexicalPath.resolve("src/../include//a.h", from: "/w/job") == "/w/job/include/a.h")
    #expect(LexicalPath.resolve("../shared/./x", from: "/w/job") == "/w/shared/x")
    #expect(LexicalPath.resolve("/etc/hosts", from: "/w") == "/etc/hosts")
    #expect(LexicalPath.resolve("../../..", from: "/w") == "/")
    #expect(LexicalPath.resolve("", from: "/w/") == "/w")
  }

  @Test func relativeOnlyUnderTheFolder() {
    #expect(LexicalPath.relative("/w/src/a.c", to: "/w") == "src/a.c")
    #expect(LexicalPath.relative("/w", to: "/w") == ".")
    #expect(LexicalPath.relative("/wx/a.c", to: "/w") == nil, "a sibling sharing a prefix is not under it")
    #expect(LexicalPath.relative("/etc/hosts", to: "/") == "etc/hosts")
    #expect(!LexicalPath.isWithin("/etc", "/w"))
  }
}

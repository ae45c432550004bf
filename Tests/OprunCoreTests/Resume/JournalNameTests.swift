import OprunCore
import Testing

/// What a journal's file name says (SPEC §9): its RUN-ID and, for this oprun's runs, the
/// sequence number journals are ordered by.
@Suite struct JournalNameTests {
  @Test func aRunIDEndingInANumberAfterDateAndPidCarriesItsSequence() {
    let name = JournalName(fileName: "20260101T120000-4242-17.ndjson")
    #expect(name?.run == "20260101T120000-4242-17")
    #expect(name?.sequence == 17)
    #expect(name?.fileName == "20260101T120000-4242-17.ndjson")
  }

  @Test func aNameOfAnEarlierOprunHasNoSequence() {
    #expect(JournalName(fileName: "20260101T120000-4242.ndjson")?.sequence == nil)
    #expect(JournalName(fileName: "20260101T120000-4242-x1.ndjson")?.sequence == nil)
  }

  @Test func hiddenTemporaryAndOtherFilesAreNoJournals() {
    #expect(JournalName(fileName: ".20260101T120000-4242-1.ndjson") == nil)
    #expect(JournalName(fileName: "20260101T120000-4242-1.ndjson.part") == nil)
    #expect(JournalName(fileName: ".ndjson") == nil)
  }

  @Test func theNextSequenceIsOneMoreThanTheHighestWhateverTheNamesSay() {
    let names = ["20990101T000000-1-9", "20000101T000000-2-10", "20260101T000000-3"].map(JournalName.init(run:))
    #expect(JournalName.nextSequence(after: names) == 11)
    #expect(JournalName.nextSequence(after: []) == 1)
  }

  @Test func journalsAreOrderedBySequenceNeverByTheClockAndUnnumberedOnesComeFirst() {
    let nine = JournalName(run: "20990101T000000-1-9")
    let ten = JournalName(run: "20000101T000000-1-10")
    let old = JournalName(run: "21000101T000000-5")
    let older = JournalName(run: "19990101T000000-5")
    #expect(nine.precedes(ten, start: 4_000_000_000, otherStart: 1))
    #expect(!ten.precedes(nine, start: 1, otherStart: 4_000_000_000))
    #expect(old.precedes(nine, start: 5_000_000_000, otherStart: 1))
    #expect(older.precedes(old, start: 1, otherStart: 2))
    #expect(!old.precedes(older, start: 2, otherStart: 1))
  }
}

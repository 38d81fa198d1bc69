import {EXIT} from '../cli/base-command.js'
import {IMPACT_DESCRIPTION, impactFlags} from '../cli/impact-flags.js'
import {LiveCommand} from '../cli/live-command.js'
import {terminalWidth} from '../cli/output-flags.js'
import {SCHEMAS} from '../core/documents.js'
import type {ImpactReport} from '../core/impact/index.js'
import {impact} from '../operations/impact.js'
import {renderImpact} from '../render/impact.js'

/** Read describe-only, the verdicts of a group not pending today (as far as the epochs show; an empty group bumps nothing). */
const QUIET_DESCRIBED: ReadonlySet<string> = new Set(['EPOCHS_IN_SYNC', 'EMPTY_GROUP'])

export default class Impact extends LiveCommand<typeof Impact> {
  static override schema = SCHEMAS.impact
  static override summary = 'Before an operation: which groups it will rebalance, how often, and when.'
  static override description = IMPACT_DESCRIPTION
  static override examples = [
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --reassignment plan.json',
    '<%= config.bin %> <%= command.id %> -b kafka:9092 --add-partitions orders=12',
    '<%= config.bin %> <%= command.id %> -b k:9092 --add-partitions orders=4/1:2,2:3,3:1,1:3',
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --decommission-broker 3',
    '<%= config.bin %> <%= command.id %> -f md.json --offsets-segment 0.log --delete-topic x',
  ]
  static override flags = impactFlags

  public override async init(): Promise<void> {
    // --fail-on-rebalance takes an optional N: a bare flag means 0
    const i = this.argv.indexOf('--fail-on-rebalance')
    if (i >= 0 && !/^\d+$/.test(this.argv[i + 1] ?? '')) this.argv.splice(i + 1, 0, '0')
    await super.init()
  }

  async run(): Promise<ImpactReport> {
    const {flags} = this
    const report = await impact(this.session, {
      reassignment: flags.reassignment,
      addPartitions: flags['add-partitions'],
      deleteTopic: flags['delete-topic'],
      createTopic: flags['create-topic'],
      recreateTopic: flags['recreate-topic'],
      shutdownBroker: flags['shutdown-broker'],
      unregisterBroker: flags['unregister-broker'],
      decommissionBroker: flags['decommission-broker'],
      brokerRack: flags['broker-rack'],
      metadataFile: flags['metadata-file'],
      offsetsSegments: flags['offsets-segment'],
      failOnRebalance: flags['fail-on-rebalance'],
      describeOnly: flags['describe-only'],
    })
    if (!this.jsonEnabled()) {
      const pendingToday = (today: string) => (report.reading ? !QUIET_DESCRIBED.has(today) : today !== 'IN_SYNC')
      const shown = flags.all ? report : {...report, groups: report.groups.filter(g => g.bumps.max > 0 || g.deferredBumps > 0 || pendingToday(g.today))}
      this.log(renderImpact(shown, terminalWidth()))
    }
    // a group left out because its describe was refused: the answer is incomplete (the warning names the grant)
    if (report.refused) this.exitWith(EXIT.runtime)
    else if (report.summary.exitCode === 3) this.exitWith(EXIT.finding)
    return report
  }
}

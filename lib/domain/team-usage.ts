/** The usage report per team and per person: what /admin/usage, a team lead's page, the CSV and `gpudesk usage --team` show. */

export interface PersonTeamUsage {
  userId: string;
  username: string | null;
  name: string;
  lead: boolean;
  /** GPU-hours booked for this team in the range: the figure the quotas count. */
  bookedGpuHours: number;
  /** GPU-hours of work the live view named as theirs on GPUs nobody had booked. */
  usedWithoutBookingGpuHours: number;
}

export interface TeamUsage {
  teamId: string;
  name: string;
  share: number;
  bookedGpuHours: number;
  usedWithoutBookingGpuHours: number;
  members: PersonTeamUsage[];
}

/** One person's use without a booking (across teams), for the people table. */
export interface UnbookedPersonUsage {
  userId: string | null;
  /** The login the live view saw when no account has it. */
  login: string | null;
  label: string;
  usedWithoutBookingGpuHours: number;
}

export interface TeamUsageReport {
  fromMs: number;
  toMs: number;
  teams: TeamUsage[];
  /** Everyone's use without a booking, by the person the live view named; null userId and login: nobody could be named. */
  unbooked: UnbookedPersonUsage[];
}

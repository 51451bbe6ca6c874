-- AlterTable
ALTER TABLE "Policy" ADD COLUMN     "demoChoice" TEXT,
ADD COLUMN     "demoChoiceAt" TIMESTAMP(3),
ADD COLUMN     "demoChoiceById" TEXT;

